-- Makes the next transaction of this session READ COMMITTED: the claim transaction's locking read
-- then holds locks only on the rows it returns (no gap locks, none on rows that no longer match).
SET TRANSACTION ISOLATION LEVEL READ COMMITTED
