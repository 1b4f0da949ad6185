-- Start-up check: fails when the V2 token sequence is missing (reads it without advancing it).
SELECT last_value FROM ${table}_claim_token_seq
