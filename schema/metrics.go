package schema

import "strings"

// Latency families and their statistics, as `vllm bench serve` names them:
// latency is end-to-end request latency, ttft the time to first token,
// tpot the time per output token after the first, itl the inter-token
// latency pooled over every chunk gap.
var (
	latencyFamilies = []string{"latency", "ttft", "tpot", "itl"}
	latencyStats    = []string{"mean", "median", "std", "p50", "p90", "p95", "p99"}
	rateMetrics     = []string{"output_throughput", "request_throughput", "total_throughput"}
)

// MetricHelp describes the metric names a study may use.
var MetricHelp = "latency|ttft|tpot|itl with .mean|.median|.std|.p50|.p90|.p95|.p99, " +
	strings.Join(rateMetrics, ", ") + ", goodput (with latency constraints), or capacity (with a search profile)"

// Metrics that only exist with an SLO: goodput, the rate of requests
// meeting every per-request bound; failed, the share of failed requests.
const (
	Goodput = "goodput"
	Failed  = "failed"
	// Capacity is the highest request rate a search profile found within
	// the SLO.
	Capacity = "capacity"
)

// IsBoundMetric reports whether a constraint can bound name.
func IsBoundMetric(name string) bool { return name == Failed || IsMetric(name) }

// IsMetric reports whether name is a metric an objective can use.
func IsMetric(name string) bool {
	if name == Goodput || name == Capacity {
		return true
	}
	for _, r := range rateMetrics {
		if name == r {
			return true
		}
	}
	fam, stat, ok := strings.Cut(name, ".")
	return ok && contains(latencyFamilies, fam) && contains(latencyStats, stat)
}

// DefaultGoal is "max" for throughputs and "min" for latencies.
func DefaultGoal(metric string) string {
	if contains(rateMetrics, metric) || metric == Goodput || metric == Capacity {
		return "max"
	}
	return "min"
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
