SELECT COALESCE(MAX(fence_high_water), 0) FROM ${table}
