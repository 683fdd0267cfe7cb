package diff

import "testing"

func TestWordDiff(t *testing.T) {
	a := "Quantization may impact accuracy, but FP8 quantization keeps the accuracy drop under 1% for most models, so it is recommended for low-latency serving."
	b := "Quantization may impact accuracy, but FP8 quantization keeps the accuracy drop under 2% for most models, so it is recommended for low-latency serving."
	want := "… the accuracy drop under [-1%-] {+2%+} for most models, so …"
	if got := wordDiff(a, b); got != want {
		t.Errorf("wordDiff = %q, want %q", got, want)
	}
	if got := wordDiff("short", "text"); got != "" {
		t.Errorf("short texts: %q, want none", got)
	}
	c := "Quantization may impact accuracy. FP8 quantization keeps the accuracy drop under 1% for most models, so it is recommended for low-latency serving today."
	if got := wordDiff(a, c); got != "Quantization may impact [-accuracy, but-] {+accuracy.+} FP8 quantization keeps the … is recommended for low-latency [-serving.-] {+serving today.+}" {
		t.Errorf("wordDiff = %q", got)
	}
}
