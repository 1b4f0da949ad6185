-- The recorded high-water marks of slots whose grants were refused (read only after a refusal).
-- Parameters: the slots (${slots}, one "?" each).
SELECT slot, fence_high_water FROM ${table}_lease_slots WHERE slot IN (${slots})
