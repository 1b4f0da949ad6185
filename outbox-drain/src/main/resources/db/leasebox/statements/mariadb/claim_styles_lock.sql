-- Locks the claim-style registry's guard row until the registering transaction ends.
SELECT owner FROM ${table}_claim_styles WHERE owner = '' FOR UPDATE
