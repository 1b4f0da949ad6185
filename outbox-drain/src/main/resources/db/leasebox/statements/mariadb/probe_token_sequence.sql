-- Start-up check: fails when the V2 token sequence is missing (reads it without advancing it).
SELECT next_not_cached_value FROM ${table}_claim_token_seq
