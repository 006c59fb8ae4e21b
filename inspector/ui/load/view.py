"""The Load view: a load run's live throughput (a line, answers a second, every half second) and the histogram
of its latencies (bars on a log scale of milliseconds), drawn with QtCharts (part of PySide6), the figures
above them, and Stop. It subscribes to the run's progress (:class:`inspector.core.load.stats.Snapshot`, handed
to :meth:`LoadView.progress`) and shows the final figures (:meth:`LoadView.finished`); the run itself is
:class:`inspector.core.load.runner.LoadRun`, the same as ``mcp-inspector load``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCharts import (
    QBarCategoryAxis,
    QBarSeries,
    QBarSet,
    QChart,
    QChartView,
    QLineSeries,
    QValueAxis,
)
from PySide6.QtCore import QMargins, Qt, Signal
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QSplitter, QVBoxLayout, QWidget

from inspector.core.load.stats import Snapshot, histogram, latency_text

#: Latency bins of the histogram.
BUCKETS = 12
#: Latencies kept for the histogram (the most recent); a long run's chart stays cheap to redraw.
HISTOGRAM_WINDOW = 50_000


class LoadView(QWidget):
    stop_requested = Signal()
    open_capture_requested = Signal(object)  #: the run's capture

    def __init__(self, title: str, capture: Any = None, parent: Any = None) -> None:
        super().__init__(parent)
        self.title = QLabel(title, self)
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.figures = QLabel("starting…", self)
        self.figures.setTextFormat(Qt.TextFormat.PlainText)
        self.figures.setWordWrap(True)
        self.stop_button = QPushButton("Stop", self)
        self.stop_button.clicked.connect(self.stop_requested.emit)
        self.open_button = QPushButton("Open the run's timeline", self)
        self.open_button.setEnabled(False)
        self.open_button.clicked.connect(lambda: self.open_capture_requested.emit(capture))
        self.throughput = QLineSeries()
        self.throughput.setName("answers a second")
        self.throughput_chart = QChart()
        self.throughput_chart.addSeries(self.throughput)
        self.throughput_chart.setTitle("Throughput")
        self.time_axis = QValueAxis()
        self.time_axis.setTitleText("seconds")
        self.time_axis.setLabelFormat("%.1f")
        self.rate_axis = QValueAxis()
        self.rate_axis.setTitleText("answers/s")
        self.rate_axis.setLabelFormat("%.0f")
        self._attach(self.throughput_chart, self.throughput, self.time_axis, self.rate_axis)
        self.histogram_chart = QChart()
        self.histogram_chart.setTitle("Latency (ms, log scale)")
        self.bars = QBarSeries()
        self.bar_set = QBarSet("requests")
        self.bars.append(self.bar_set)
        self.histogram_chart.addSeries(self.bars)
        self.bucket_axis = QBarCategoryAxis()
        self.bucket_axis.setTitleText("up to ms")
        self.bucket_axis.setLabelsAngle(-60)  # one label a bin, each readable however narrow the bins
        self.count_axis = QValueAxis()
        self.count_axis.setLabelFormat("%.0f")
        self._attach(self.histogram_chart, self.bars, self.bucket_axis, self.count_axis)
        charts = QSplitter(Qt.Orientation.Horizontal, self)
        for chart in (self.throughput_chart, self.histogram_chart):
            chart.legend().hide()
            chart.setMargins(QMargins(4, 4, 4, 4))
            view = QChartView(chart, charts)
            view.setRenderHint(QPainter.RenderHint.Antialiasing)
            charts.addWidget(view)
        top = QHBoxLayout()
        top.addWidget(self.title, 1)
        top.addWidget(self.stop_button)
        top.addWidget(self.open_button)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.figures)
        layout.addWidget(charts, 1)
        self.latencies: list[float] = []
        self.points: list[tuple[float, float]] = []
        self.result: dict[str, Any] | None = None

    @staticmethod
    def _attach(chart: QChart, series: Any, x: Any, y: Any) -> None:
        chart.addAxis(x, Qt.AlignmentFlag.AlignBottom)
        chart.addAxis(y, Qt.AlignmentFlag.AlignLeft)
        series.attachAxis(x)
        series.attachAxis(y)

    # -- the run's progress ---------------------------------------------------------------------------

    def progress(self, snap: Snapshot) -> None:
        """A progress snapshot of the run: a point on the throughput line, its latencies into the histogram."""
        self.points.append((snap.elapsed, snap.recent_throughput))
        self.throughput.append(snap.elapsed, snap.recent_throughput)
        self.time_axis.setRange(0, max(1.0, snap.elapsed))
        self.rate_axis.setRange(0, max(10.0, max(rate for _, rate in self.points) * 1.1))
        self.latencies += snap.recent
        del self.latencies[:-HISTOGRAM_WINDOW]
        self._draw_histogram()
        self.figures.setText(f"{snap.elapsed:.1f} s: {snap.requests:,} requests, {snap.recent_throughput:,.0f}/s "
                             f"now ({snap.throughput:,.0f}/s overall), p50 {snap.p50:.2f} ms, p99 {snap.p99:.2f} ms, "
                             f"{snap.errors:,} errors")

    def _draw_histogram(self) -> None:
        edges, counts = histogram(self.latencies, BUCKETS)
        if self.bar_set.count():
            self.bar_set.remove(0, self.bar_set.count())
        self.bar_set.append([float(c) for c in counts])
        self.bucket_axis.clear()
        self.bucket_axis.append([_ms(edge) for edge in edges])
        self.count_axis.setRange(0, max(1, max(counts, default=1)) * 1.1)

    def finished(self, figures: dict[str, Any], problem: str | None = None) -> None:
        """The run's final figures (``load --format json``'s object), or why it could not run."""
        self.result = figures
        self.stop_button.setEnabled(False)
        self.open_button.setEnabled(bool(figures))
        if problem:
            self.figures.setText(problem)
            return
        self.figures.setText(
            f"done: {figures['requests']:,} requests in {figures['elapsed_s']:.2f} s at concurrency "
            f"{figures['concurrency']}: {figures['throughput']:,.1f}/s; {figures['errors']:,} errors "
            f"({figures['error_rate'] * 100:.2f}%); {latency_text(figures)}"
            + (f". The run stopped early: {figures['stopped']}" if figures.get("stopped") else ""))

    def on_stop(self, stop: Callable[[], None]) -> None:
        self.stop_requested.connect(stop)


def _ms(value: float) -> str:
    """A bin's upper edge, short: ``0.38``, ``2.9``, ``13``, ``460``."""
    return f"{value:.2f}" if value < 1 else f"{value:.1f}" if value < 10 else f"{value:.0f}"
