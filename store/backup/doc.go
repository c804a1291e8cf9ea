// Package backup runs backups of a live store and restores them (interface.md "Backup
// endpoints", DECISIONS.md): Jobs starts one job at a time into a backup directory and reports
// the state of any job, also after a restart (each job's directory holds its status file, its
// manifest and the copy, dir.go); Restore makes a new data directory from a finished job.
//
// The copy itself is the store's (store.Snapshot.WriteBackup): it reads the store's rows and
// header log as of a snapshot. This package keeps what lies around it, the jobs and their
// directories, so that the store stays about storage.
package backup
