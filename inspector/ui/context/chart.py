"""The Model's view's chart: a horizontal bar of tokens for each tool, the largest on top, drawn with QtCharts
(part of PySide6, as the Load view's charts); past :data:`TOP` tools the rest are one bar, summed. Clicking a
tool's bar says which (:attr:`TokenChart.tool_clicked`); the view selects it in its list."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCharts import QBarCategoryAxis, QBarSet, QChart, QChartView, QHorizontalBarSeries, QValueAxis
from PySide6.QtCore import QMargins, Qt, Signal
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import QWidget

from inspector.core.context.lint import visible
from inspector.core.context.report import ContextReport

#: the tools drawn each as a bar; those past them are summed in one
TOP = 15
#: a tool's name on the axis is cut to this many characters (its whole name is in the list beside)
LABEL_CHARS = 28
_BAR_COLOUR = "#1e88e5"
_SELECTED_COLOUR = "#0d47a1"  #: the bar of the tool selected in the list


@dataclass(frozen=True)
class Bar:
    label: str  #: as the axis shows it
    tokens: int
    name: str | None  #: the tool's name; None for the bar of the rest


def bars(report: ContextReport, top: int = TOP) -> list[Bar]:
    """The report's tools as bars, the largest first (the report's order); past ``top`` tools the rest summed
    in one bar named by how many they are."""
    tools = [c for c in report.items if c.kind == "tool"]
    shown = tools if len(tools) <= top else tools[:top - 1]
    rows = [Bar(_short(visible(c.label())), c.cost.tokens, c.name) for c in shown]
    rest = tools[len(shown):]
    if rest:
        rows.append(Bar(f"{len(rest)} other tools", sum(c.cost.tokens for c in rest), None))
    # a category axis needs distinct labels: two long names cut alike, or a server's tools listed under
    # several servers, get a number
    seen: dict[str, int] = {}
    for i, row in enumerate(rows):
        seen[row.label] = n = seen.get(row.label, 0) + 1
        if n > 1:
            rows[i] = Bar(f"{row.label} ({n})", row.tokens, row.name)
    return rows


def _short(label: str) -> str:
    return label if len(label) <= LABEL_CHARS else label[:LABEL_CHARS - 1] + "…"


class TokenChart(QChartView):
    """The chart of one report; :meth:`show_report` draws another in its place."""

    tool_clicked = Signal(str)  #: the name of the tool whose bar was clicked

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.setMinimumSize(280, 160)
        self.rows: list[Bar] = []
        #: the bars, the smallest first: QtCharts draws a category axis's first at the bottom
        self.tokens = QBarSet("tokens")
        self.tokens.setColor(QColor(_BAR_COLOUR))
        self.tokens.setSelectedColor(QColor(_SELECTED_COLOUR))
        self.tokens.clicked.connect(self._clicked)
        self.series = QHorizontalBarSeries()
        self.series.append(self.tokens)
        self.series.setLabelsVisible(True)
        self.series.setLabelsPosition(QHorizontalBarSeries.LabelsPosition.LabelsInsideEnd)
        self.tools_axis = QBarCategoryAxis()
        self.tokens_axis = QValueAxis()
        self.tokens_axis.setLabelFormat("%.0f")
        chart = QChart()
        chart.addSeries(self.series)
        chart.addAxis(self.tools_axis, Qt.AlignmentFlag.AlignLeft)
        chart.addAxis(self.tokens_axis, Qt.AlignmentFlag.AlignBottom)
        self.series.attachAxis(self.tools_axis)
        self.series.attachAxis(self.tokens_axis)
        chart.legend().hide()
        chart.setMargins(QMargins(4, 4, 4, 4))
        self.setChart(chart)

    def show_report(self, report: ContextReport) -> None:
        self.rows = bars(report)
        if self.tokens.count():
            self.tokens.remove(0, self.tokens.count())
        self.tokens.append([float(row.tokens) for row in reversed(self.rows)])
        self.tools_axis.clear()
        self.tools_axis.append([row.label for row in reversed(self.rows)])
        most = max((row.tokens for row in self.rows), default=0)
        self.tokens_axis.setRange(0, max(10, most) * 1.1)
        self.tokens_axis.applyNiceNumbers()
        tools = report.kind_count("tool")
        title = f"Tokens per tool ({tools} tool{'s' if tools != 1 else ''}, {report.totals.tokens} tokens in all)"
        if report.budget is not None:
            title += f"; budget {report.budget}" + (": over it" if report.over_budget else "")
        self.chart().setTitle(title)

    def mark(self, name: str | None) -> None:
        """Draw the bar of tool ``name`` as selected (none for None or a tool summed in the rest)."""
        self.tokens.deselectAllBars()
        for i, row in enumerate(self.rows):
            if name is not None and row.name == name:
                self.tokens.selectBar(len(self.rows) - 1 - i)

    def marked(self) -> list[str]:
        """The labels of the bars drawn as selected."""
        return [self.rows[len(self.rows) - 1 - i].label for i in self.tokens.selectedBars()]

    def order(self) -> list[tuple[str, int]]:
        """The bars from the top down, as (label, tokens): what the chart shows."""
        return [(row.label, row.tokens) for row in self.rows]

    def _clicked(self, index: int) -> None:
        """``index`` counts from the bottom bar."""
        row = self.rows[len(self.rows) - 1 - index] if 0 <= index < len(self.rows) else None
        if row is not None and row.name is not None:
            self.tool_clicked.emit(row.name)
