-- The table's count of claims taken over (V8); fails on a table without V8.
SELECT taken_over FROM ${table}_claim_styles WHERE owner = ''
