-- Records one slot-lease grant as its slot's newest: written only when its fence is strictly above
-- the slot's fence_high_water (an equal fence is refused, as for rows). Run once per grant, in slot
-- order, inside one transaction. The row lock this takes waits for claims and completions running
-- under the previous grant (they share-lock the slot row, slot_hold.sql), so once this commits no
-- claim or completion under an older grant can follow.
-- Parameters: fence, holder, granted_at (UTC), slot, fence.
UPDATE ${table}_lease_slots
SET fence_high_water = ?,
    holder           = ?,
    granted_at       = ?
WHERE slot = ?
  AND ? > fence_high_water
