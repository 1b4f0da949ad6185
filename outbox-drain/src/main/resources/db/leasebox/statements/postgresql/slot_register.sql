-- Records a batch of slot-lease grants as their slots' newest, in one statement: a grant is written
-- only when its fence is strictly above the slot's fence_high_water (an equal fence is refused, as for
-- rows). The row lock this takes waits for claims running under the previous grant
-- (slot_claim.sql's FOR SHARE), so once this commits no claim under an older grant can follow.
-- Parameters: slots integer[], fences bigint[], holders text[], granted_at text[].
UPDATE ${table}_lease_slots AS s
SET fence_high_water = g.fence,
    holder           = g.holder,
    granted_at       = g.granted_at::timestamptz
FROM unnest(?::integer[], ?::bigint[], ?::text[], ?::text[]) AS g(slot, fence, holder, granted_at)
WHERE s.slot = g.slot
  AND g.fence > s.fence_high_water
RETURNING s.slot
