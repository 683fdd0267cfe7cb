package runner

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"strings"
	"time"

	"servelab.dev/execute/load"
	"servelab.dev/schema"
)

// launchEnv is the trial's environment plus what the engine needs to
// serve its cache-reset endpoint. The additions are harness settings,
// not part of the configuration: they change neither the key nor the
// printed command.
func launchEnv(env map[string]string, cr *schema.CacheReset) map[string]string {
	if cr == nil || len(cr.Env) == 0 {
		return env
	}
	out := maps.Clone(cr.Env)
	maps.Copy(out, env)
	return out
}

// resetCache empties the engine's prefix cache before a trial that
// follows another on the same launch, so that it does not inherit a
// warm cache. It returns a note for the record: what was done, or why
// it could not be.
func resetCache(ctx context.Context, tg load.Target, cr *schema.CacheReset) string {
	if cr == nil {
		return "prefix cache not reset before this run: the engine has no reset endpoint (distinct prompts per trial still apply)"
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(tg.URL, "/")+cr.Path, nil)
	if err != nil {
		return "prefix cache not reset: " + err.Error()
	}
	c := tg.Client(0)
	defer c.CloseIdleConnections()
	resp, err := c.Do(req)
	if err != nil {
		return fmt.Sprintf("prefix cache not reset: POST %s: %v", cr.Path, err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Sprintf("prefix cache not reset: POST %s answered %s", cr.Path, resp.Status)
	}
	return "prefix cache reset before this run (POST " + cr.Path + ")"
}
