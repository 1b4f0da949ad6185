-- A worker leaves the registry. Parameters: owner.
DELETE FROM ${table}_claim_styles WHERE owner = ? AND owner <> ''
