package transport

import (
	"errors"
	"strconv"

	"github.com/valyala/fasthttp"

	"github.com/ledgernode/ledger-node/store/backup"
	"github.com/ledgernode/ledger-node/transport/httpkit"
)

// The backup endpoints (interface.md "Backup endpoints", DECISIONS.md): served under
// /chainweb/0.0/{network}/ only when ServiceConfig.Backup is set, so that a node without the
// backup API answers them 404.
//
//	POST make-backup[?backupPact]   200 text/plain: the new job's id; 409 while a job runs, naming it
//	GET  check-backup/{backupId}    200 text/plain: backup-in-progress, backup-done or backup-failed;
//	                                404 when there is no such job
//
// A backupId that is not a canonical decimal number cannot name a job: the router does not match
// it (an empty 404, as for any unknown path), and it never reaches the backup directory.

// BackupAPI runs backup jobs; backup.Jobs implements it.
type BackupAPI interface {
	// Start starts a job (with the Pact state if backupPact) or, while one runs, returns the
	// running job's id with backup.ErrRunning. Another error means backups cannot start at
	// all (the node is stopping).
	Start(backupPact bool) (id string, err error)
	// Status reports a job's state; ok is false when there is no job with that id.
	Status(id string) (state string, ok bool)
}

var argBackupPact = []byte("backupPact")

// makeBackup serves POST …/make-backup. The body, if any, is ignored.
func (s *Service) makeBackup(ctx *fasthttp.RequestCtx, _ params) {
	pact, ok := queryFlag(ctx.QueryArgs().PeekBytes(argBackupPact), ctx.QueryArgs().HasBytes(argBackupPact))
	if !ok {
		httpkit.BadQueryParam(ctx, "backupPact", "want no value, true or false")
		return
	}
	id, err := s.cfg.Backup.Start(pact)
	if errors.Is(err, backup.ErrRunning) {
		httpkit.WriteText(ctx, fasthttp.StatusConflict, "a backup is running: "+id+" (GET check-backup/"+id+" tells when it ends)")
		return
	}
	if err != nil {
		// Not a bug and not the client's fault: the node is going away.
		httpkit.WriteText(ctx, fasthttp.StatusServiceUnavailable, "cannot start a backup: "+err.Error())
		return
	}
	httpkit.WriteText(ctx, fasthttp.StatusOK, id)
}

// queryFlag reads a servant QueryFlag: present with no value, "true" or "1" is true; "false" or
// "0" is false, as is absence. Any other value is refused (ok false) rather than guessed at.
func queryFlag(v []byte, present bool) (flag, ok bool) {
	if !present {
		return false, true
	}
	switch string(v) {
	case "", "true", "1":
		return true, true
	case "false", "0":
		return false, true
	}
	return false, false
}

// checkBackup serves GET …/check-backup/{backupId}.
func (s *Service) checkBackup(ctx *fasthttp.RequestCtx, p params) {
	id := strconv.FormatUint(p.id, 10)
	state, ok := s.cfg.Backup.Status(id)
	if !ok {
		httpkit.WriteText(ctx, fasthttp.StatusNotFound, "no backup job with id "+id)
		return
	}
	httpkit.WriteText(ctx, fasthttp.StatusOK, state)
}
