// Draws every chart of a servelab report: each figure carries its
// ECharts option as JSON in a <script type="application/json"> element,
// so pages need no inline script. Without ECharts the tables under the
// charts still give the numbers.
(function () {
  if (typeof echarts === "undefined") { return; }
  // Value axes write their numbers as the page's language does (1 000
  // in Russian), as the figures in the text and the labels are; ECharts
  // alone writes 1,000 everywhere.
  var numbers = new Intl.NumberFormat(document.documentElement.lang || "en", { maximumFractionDigits: 2 });
  function localAxes(option) {
    ["xAxis", "yAxis"].forEach(function (name) {
      [].concat(option[name] || []).forEach(function (axis) {
        if (axis.type !== "value") { return; }
        axis.axisLabel = axis.axisLabel || {};
        if (!axis.axisLabel.formatter) {
          axis.axisLabel.formatter = function (v) { return numbers.format(v); };
        }
      });
    });
    return option;
  }
  document.querySelectorAll("[data-chart]").forEach(function (el) {
    var data = document.getElementById(el.getAttribute("data-chart"));
    if (!data) { return; }
    var chart = echarts.init(el, null, { renderer: "svg" });
    chart.setOption(localAxes(JSON.parse(data.textContent)));
    window.addEventListener("resize", function () { chart.resize(); });
  });
})();
