package actors

import (
	"context"
	"log/slog"

	"github.com/asynkron/protoactor-go/actor"
)

// newActorSystem starts a protoactor system whose log lines go to our slog logger (its default
// prints coloured tint lines to stderr). protoactor logs routine events at Info ("actor system
// started", dead letters after a stop), which are noise in a node's log, so Info becomes Debug;
// its warnings and errors (supervision, failed registrations) keep their level.
func newActorSystem(log *slog.Logger) *actor.ActorSystem {
	l := slog.New(demoteInfo{log.Handler()}).With("component", "protoactor")
	return actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return l }))
}

// demoteInfo logs Info records at Debug.
type demoteInfo struct{ slog.Handler }

func (d demoteInfo) Enabled(ctx context.Context, l slog.Level) bool {
	return d.Handler.Enabled(ctx, demote(l))
}

func (d demoteInfo) Handle(ctx context.Context, r slog.Record) error {
	r.Level = demote(r.Level)
	return d.Handler.Handle(ctx, r)
}

func (d demoteInfo) WithAttrs(as []slog.Attr) slog.Handler {
	return demoteInfo{d.Handler.WithAttrs(as)}
}

func (d demoteInfo) WithGroup(name string) slog.Handler { return demoteInfo{d.Handler.WithGroup(name)} }

func demote(l slog.Level) slog.Level {
	if l == slog.LevelInfo {
		return slog.LevelDebug
	}
	return l
}
