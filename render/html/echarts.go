package html

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
)

// EChartsSHA256 pins dist/echarts.min.js of npm echarts 5.6.0, the
// version site/package-lock.json installs.
const EChartsSHA256 = "bf4a223524e40b77c304bec67e1222cf551f14880cf42c69dc046558e11c07b1"

// ECharts reads the pinned ECharts build from the npm package folder
// (node_modules/echarts), checked against its sha256, with its licence
// and notice: the files a page's charts need besides Assets.
func ECharts(pkg string) (map[string][]byte, error) {
	js, err := os.ReadFile(filepath.Join(pkg, "dist", "echarts.min.js"))
	if err != nil {
		return nil, fmt.Errorf("%w: HTML reports need the pinned npm echarts package (make site-deps installs it in site/node_modules; or give --echarts DIR, or --format md)", err)
	}
	if sum := sha256.Sum256(js); hex.EncodeToString(sum[:]) != EChartsSHA256 {
		return nil, fmt.Errorf("%s: sha256 %x, want %s (echarts 5.6.0 as pinned in site/package-lock.json)", pkg, sum, EChartsSHA256)
	}
	files := map[string][]byte{"echarts.min.js": js}
	for _, n := range []string{"LICENSE", "NOTICE"} {
		b, err := os.ReadFile(filepath.Join(pkg, n))
		if err != nil {
			return nil, err
		}
		files["echarts-"+n+".txt"] = b
	}
	return files, nil
}
