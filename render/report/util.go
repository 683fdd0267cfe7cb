package report

import (
	"strconv"
)

func itoa(n int) string { return strconv.Itoa(n) }

func trim(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// billions writes a parameter count as the model cards do: 8.2 B.
func billions(p float64) string { return strconv.FormatFloat(p/1e9, 'f', -1, 64) + " B" }
