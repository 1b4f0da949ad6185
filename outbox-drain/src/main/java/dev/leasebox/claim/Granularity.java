package dev.leasebox.claim;

/** What one lease covers. */
public enum Granularity {
    /** One lease per claimed row (the default). */
    ROW,
    /** One lease per slot of the table (V3); the rows of held slots are claimed in the database. */
    PARTITION
}
