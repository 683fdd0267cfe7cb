// Draws every chart of a servelab report: each figure carries its
// ECharts option as JSON in a <script type="application/json"> element,
// so pages need no inline script. Without ECharts the tables under the
// charts still give the numbers.
(function () {
  if (typeof echarts === "undefined") { return; }
  document.querySelectorAll("[data-chart]").forEach(function (el) {
    var data = document.getElementById(el.getAttribute("data-chart"));
    if (!data) { return; }
    var chart = echarts.init(el, null, { renderer: "svg" });
    chart.setOption(JSON.parse(data.textContent));
    window.addEventListener("resize", function () { chart.resize(); });
  });
})();
