package export

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"servelab.dev/schema/plan"
)

// DockerArgv is the docker run command of c: the engine's image with the
// serve command's first word as entrypoint and the rest as arguments,
// all GPUs it needs, the port published, host IPC (engines share tensors
// between processes through /dev/shm), a named volume as model cache,
// the study's environment and HF_TOKEN passed through from the caller's.
func DockerArgv(c Config) []string {
	argv := []string{"docker", "run", "--detach", "--name", DNSName(c.Name), "--gpus", fmt.Sprint(c.GPUs),
		"--ipc", "host", "--publish", fmt.Sprintf("%d:%d", Port, Port), "--volume", "hf-cache:" + CacheDir}
	for _, k := range slices.Sorted(maps.Keys(c.Env)) {
		argv = append(argv, "--env", k+"="+c.Env[k])
	}
	argv = append(argv, "--env", "HF_TOKEN", "--entrypoint", c.Argv[0], c.Image)
	return append(argv, c.ServeArgv()[1:]...)
}

var _ = register(Format{Name: "docker", File: "docker-run.sh", Label: "docker run", Rank: 1, Write: Docker})

// Docker is DockerArgv as a bash script, one option per line.
func Docker(c Config) ([]byte, error) {
	argv := DockerArgv(c)
	var b strings.Builder
	fmt.Fprintf(&b, "#!/bin/bash\n%s# Serve command: %s\n", c.header(), shellLine(c))
	for i, a := range argv {
		q, err := syntax.Quote(a, syntax.LangBash)
		if err != nil {
			return nil, fmt.Errorf("docker argument %q: %w", a, err)
		}
		if a != "" && strings.Trim(a, safeChars) == "" {
			q = a // plain words stay readable; syntax.Quote quotes any '='
		}
		switch {
		case i == 0:
		case strings.HasPrefix(a, "--") && i < indexImage(argv):
			b.WriteString(" \\\n  ")
		case i == indexImage(argv):
			b.WriteString(" \\\n  ")
		default:
			b.WriteByte(' ')
		}
		b.WriteString(q)
	}
	b.WriteByte('\n')
	return []byte(b.String()), nil
}

func indexImage(argv []string) int {
	for i, a := range argv {
		if a == "--entrypoint" {
			return i + 2
		}
	}
	return len(argv)
}

func shellLine(c Config) string {
	s, err := plan.Shell(c.Env, c.Argv)
	if err != nil {
		return strings.Join(c.Argv, " ")
	}
	return strings.ReplaceAll(s, "\n", " ")
}

const safeChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:@%+,"
