// Command servelab-sim is an engine stand-in for tests and for machines
// without a GPU: execute/sim's simulated engine on loopback, taking the
// command lines servelab launches for vLLM, SGLang and TensorRT-LLM.
//
//	servelab-sim vllm serve MODEL [--port N] [engine flags...]
//	servelab-sim python3 -m sglang.launch_server --model-path MODEL [--port N] ...
//	servelab-sim trtllm-serve MODEL [--port N] ...
//
// A launched engine takes its settings from its command line and its
// environment only, so the simulator's own come from the environment:
// SERVELAB_SIM_TIMING overrides the timing model's constants
// ("step=6ms,per-seq=50us,prefill=20us") and SERVELAB_SIM_FAULT injects
// faults (crash, unhealthy, slow-start=2s, http500=0.1, cut=0.1,
// stall=0.1, exit-after=N, endless-line); see execute/sim. --port 0
// takes a port the kernel picks, printed in the start-up line.
package main

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"

	"servelab.dev/execute/sim"
)

func main() {
	c, err := sim.Parse(os.Args[1:], os.Getenv("SERVELAB_SIM_TIMING"), os.Getenv("SERVELAB_SIM_FAULT"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "servelab-sim:", err)
		os.Exit(2)
	}
	c.DevMode = os.Getenv("VLLM_SERVER_DEV_MODE") == "1"
	c.Devices = os.Getenv("CUDA_VISIBLE_DEVICES")
	if c.Faults.Crash {
		fmt.Fprintln(os.Stderr, sim.CrashMessage)
		os.Exit(3)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(c.Host, strconv.Itoa(c.Port)))
	if err != nil {
		fmt.Fprintln(os.Stderr, "servelab-sim:", err)
		os.Exit(1)
	}
	s := sim.New(c, func(msg string) {
		fmt.Fprintln(os.Stderr, msg)
		os.Exit(4)
	})
	fmt.Fprintln(os.Stderr, s.Banner(ln.Addr()))
	if err := http.Serve(ln, s.Handler()); err != nil {
		fmt.Fprintln(os.Stderr, "servelab-sim:", err)
		os.Exit(1)
	}
}
