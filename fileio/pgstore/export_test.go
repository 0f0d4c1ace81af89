package pgstore

// ProjectLockKey exposes projectLockKey to the benchmark's reference transaction.
var ProjectLockKey = projectLockKey
