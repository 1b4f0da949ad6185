-- Every row's status and fence high-water mark: the demo's verdict compares them with what was emitted.
SELECT id, status, fence_high_water FROM ${table}
