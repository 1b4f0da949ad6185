-- A worker leaves gracefully. Parameters: owner.
DELETE FROM ${table}_workers WHERE owner = ?
