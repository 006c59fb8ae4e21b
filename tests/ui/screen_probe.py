"""Run by tests/ui/test_small_screens.py in a fresh process, on an offscreen screen of a given size and scale
(QT_QPA_PLATFORM=offscreen:configfile=..., QT_SCALE_FACTOR), or on a real X server's (QT_QPA_PLATFORM=xcb and
DISPLAY, where a window can grow past the screen: the offscreen platform keeps it inside): opens the main window
with its settings in ``SETTINGS``, opens ``CAPTURE`` when given, lets it lay out, prints what the test checks as one
JSON line and closes the window (which saves its geometry).

usage: [PROBE_RESIZE=WxH] [PROBE_SHOT=PNG] [PROBE_COMMAND=JSON] [PROBE_TOOL=NAME] [PROBE_CALL=NAME] [PROBE_CANCEL=1]
       [PROBE_FOLD=1]
       python screen_probe.py SETTINGS [CAPTURE | live]

``live`` opens a live session of the demo server instead (File > Demo server), or of the stdio server
``PROBE_COMMAND`` (a JSON argv) when given, with its Explorer, and measures once the Explorer lists the tools
(``window_with_explorer``). ``PROBE_TOOL`` then selects that tool (its arguments form shown, measured then:
``tool_form_height``, ``window_with_tool_form``, where its Call button is, ``call_button``, and whether all of it
is in sight, ``call_button_seen``; at the end, how many pixels of the Tools page's width no scroll bar reaches,
``tools_page_cut``); ``PROBE_CALL`` calls that tool with no arguments and waits for the server's
request it makes (an elicitation: the answer form shown; how many scroll areas its first field is inside,
``form_scroll_areas``, and how much of that field's box is in sight, ``first_field``: [seen, height]);
``PROBE_CANCEL`` then answers it with Cancel and measures the window again (``window_after_cancel``), and
``PROBE_FOLD`` last folds the Explorer away (Ctrl+E) and measures it once more (``window_after_fold``). At each
step ``squeezed_with_*`` names the controls drawn narrower than their minimum. Rectangles are [x, y, width, height]
on the screen, in logical pixels. ``PROBE_SHOT`` saves a picture of the window (with the answer form, before any
Cancel).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication


def clipped(tab, columns) -> list[list[object]]:
    """Each number cell whose text does not fit its column (Qt would show it cut, with "…"): [column, text]."""
    from PySide6.QtWidgets import QStyle

    header, metrics, model = tab.table.horizontalHeader(), tab.table.fontMetrics(), tab.table.model()
    margin = 2 * (tab.table.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, tab.table) + 1)
    cut = []
    for row in range(model.rowCount()):
        for column in sorted(columns):
            text = str(model.index(row, column).data() or "")
            if metrics.horizontalAdvance(text) + margin > header.sectionSize(column):
                cut.append([column, text])
    return cut


def form_height(tab) -> int:
    """The height the shown form (the answer form, else the Explorer's arguments form) has on screen, clipped by
    whatever scrolls it: how much of it the user sees without dragging a splitter."""
    form = tab.requests.reply_form() if tab.requests.isVisible() else None
    if form is None and tab.explorer.isVisible():
        form = tab.explorer.tools.arguments_editor
    if form is None or not form.isVisible():
        return 0
    return seen(form).height()


def seen(widget):
    """The part of ``widget`` (a QRect in the window) that what holds it leaves in sight: its rectangle clipped by
    each of its parents' (a scroll area's viewport among them). Unlike ``visibleRegion``, the widget's own children
    do not hide it."""
    area = widget.rect().translated(widget.mapTo(widget.window(), widget.rect().topLeft()))
    parent = widget.parentWidget()
    while parent is not None and not parent.isWindow():
        area = area.intersected(parent.rect().translated(parent.mapTo(parent.window(), parent.rect().topLeft())))
        parent = parent.parentWidget()
    return area


def on_screen(widget) -> list[int]:
    """Where ``widget`` is on the screen: [x, y, width, height]."""
    corner = widget.mapToGlobal(widget.rect().topLeft())
    return [corner.x(), corner.y(), widget.width(), widget.height()]


def in_sight(widget) -> bool:
    """Whether the whole of ``widget`` is in sight: nothing of it scrolled away or cut by what holds it."""
    return widget.isVisible() and widget.visibleRegion().boundingRect() == widget.rect()


def cut_off(page) -> int:
    """How many pixels of ``page``'s width (in a scroll area) lie past the edge with no scroll bar to reach them."""
    from PySide6.QtWidgets import QScrollArea

    area = page.parentWidget().parentWidget()  # the viewport's scroll area
    assert isinstance(area, QScrollArea), "a page in its scroll area"
    bar = area.horizontalScrollBar()
    return max(0, page.width() - area.viewport().width() - (bar.maximum() if bar.isVisible() else 0))


def scroll_areas_around(widget, top) -> int:
    """How many scroll areas hold ``widget``, up to ``top``: each one is a scroll bar the user may have to drag."""
    from PySide6.QtWidgets import QAbstractScrollArea

    count, parent = 0, widget.parentWidget()
    while parent is not None and parent is not top:
        count += isinstance(parent, QAbstractScrollArea)
        parent = parent.parentWidget()
    return count


def squeezed(window) -> list[list[object]]:
    """Each control in sight drawn narrower than its minimum width (what a layout does when the window is given
    less than it asks for: a button's text cut, a box too narrow to read): [what, width, minimum]. Qt's own tab
    bar arrows are left out (the style draws them narrower than their hint)."""
    from PySide6.QtWidgets import QAbstractButton, QAbstractSpinBox, QComboBox, QLineEdit

    cut = []
    for kind in (QAbstractButton, QComboBox, QLineEdit, QAbstractSpinBox):
        for control in window.findChildren(kind):
            if not control.isVisible() or control.visibleRegion().isEmpty() \
                    or control.objectName() in ("ScrollLeftButton", "ScrollRightButton") \
                    or isinstance(control.parentWidget(), QAbstractSpinBox):  # the spin box's own line edit
                continue
            least = min(control.minimumSizeHint().width(), control.maximumWidth())
            if control.width() < least:
                text = control.text() if hasattr(control, "text") else control.objectName()
                cut.append([f"{type(control).__name__} {text!r}", control.width(), least])
    return cut


def main() -> None:
    app = QApplication([])
    from inspector.core.clients.profiles import ProfileStore
    from inspector.ui.app import build_window
    from inspector.ui.timeline.model import COL_SUMMARY
    from inspector.ui.timeline.view import NUMBER_COLUMNS, SUMMARY_MIN_CHARS

    folder = Path(tempfile.mkdtemp())
    settings = QSettings(sys.argv[1], QSettings.Format.IniFormat)
    window = build_window(settings=settings, store=ProfileStore(folder / "profiles.json"), captures=folder)
    window.show()
    for _ in range(20):  # the window manager's part (here the offscreen platform's): placing, maximizing
        app.processEvents()
    if os.environ.get("PROBE_RESIZE"):  # as a window manager or the user would: a normal window of that size
        width, height = map(int, os.environ["PROBE_RESIZE"].split("x"))
        window.showNormal()
        window.setGeometry(0, 0, width, height)
        for _ in range(20):
            app.processEvents()
    out: dict[str, object] = {}
    loop = None
    if len(sys.argv) > 2 and sys.argv[2] == "live":
        import asyncio

        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the shared loop and wait
        from helpers import until
        from qt_loop import new_qloop

        loop = new_qloop(app)
        asyncio.set_event_loop(loop)
        if os.environ.get("PROBE_COMMAND"):
            from inspector.core.connect.target import Target

            tab = window.open_live(Target(name="probed", argv=json.loads(os.environ["PROBE_COMMAND"])))
            if not tab.explorer.isVisible():  # folded on a small screen: opened as a user would
                tab.explorer_toggle.click()
        else:
            tab = window.open_demo()

        async def filled() -> None:
            await until(lambda: tab.explorer.tools.tool_list.count() > 0 and tab.explorer.catalog.settled, 60,
                        "the Explorer to list the demo's tools")
            for _ in range(20):  # turns of the loop for its rows to be laid out (no wait)
                await asyncio.sleep(0)
            frame = window.frameGeometry()
            out.update(window_with_explorer=[frame.x(), frame.y(), frame.width(), frame.height()],
                       squeezed_with_explorer=squeezed(window))

        loop.run_until_complete(filled())

        async def laid_out() -> None:  # turns of the loop for the layout (no wait): Qt's events run inside it
            for _ in range(20):
                await asyncio.sleep(0)

        if os.environ.get("PROBE_TOOL"):  # its arguments form shown, as when the user selects the tool
            tools = tab.explorer.tools.tool_list
            tools.setCurrentRow(next(row for row in range(tools.count())
                                     if tools.item(row).text().startswith(os.environ["PROBE_TOOL"])))
            loop.run_until_complete(laid_out())
            frame = window.frameGeometry()
            out.update(tool_form_height=form_height(tab),
                       window_with_tool_form=[frame.x(), frame.y(), frame.width(), frame.height()],
                       call_button=on_screen(tab.explorer.tools.call_button),
                       call_button_seen=in_sight(tab.explorer.tools.call_button),
                       squeezed_with_tool_form=squeezed(window))
        if os.environ.get("PROBE_CALL"):  # the server asks the user something: the answer form shown
            tab.explorer.tools.call_tool(os.environ["PROBE_CALL"], {})
            loop.run_until_complete(until(lambda: tab.requests.reply_form() is not None, 60, "the server's request"))
            loop.run_until_complete(laid_out())
            from PySide6.QtWidgets import QLineEdit

            first = tab.requests.reply_form().findChildren(QLineEdit)[0]  # the first field's (the form's own order)
            out.update(form_scroll_areas=scroll_areas_around(first, tab), squeezed_with_answer_form=squeezed(window),
                       first_field=[first.visibleRegion().boundingRect().height(), first.height()])
        tab.feed.flush_now()
        loop.run_until_complete(laid_out())
        out.update(tools_page_cut=cut_off(tab.explorer.tools))
    elif len(sys.argv) > 2:
        tab = window.open_capture(Path(sys.argv[2]))
        assert tab is not None
        for _ in range(200):  # the capture is small: a few slices load it
            app.processEvents()
            if not tab.loading:
                break
        for _ in range(20):
            app.processEvents()
    if len(sys.argv) > 2:
        header = tab.table.horizontalHeader()
        unit = tab.fontMetrics().horizontalAdvance("0")
        viewport = tab.table.viewport()
        out.update(
            filter_text=tab.filter_text.width(),
            filter_text_wants=tab.fontMetrics().horizontalAdvance(tab.filter_text.placeholderText()),
            filter_method=tab.filter_method.width(),
            method_wants=tab.fontMetrics().horizontalAdvance("tools/call"),
            boxes_inside=all(box.isVisible() and tab.rect().contains(box.geometry())
                             for box in (tab.timeline.show_c2s, tab.timeline.show_s2c, tab.timeline.show_stderr,
                                         tab.timeline.show_transport, tab.problems_only, tab.follow)),
            boxes_clear=not tab.timeline.show_c2s.geometry().intersects(tab.filter_method.geometry()),
            summary_left=header.sectionViewportPosition(COL_SUMMARY),
            summary_width=header.sectionSize(COL_SUMMARY),
            summary_wants=unit * SUMMARY_MIN_CHARS,
            viewport_width=viewport.width(),
            scrolls_sideways=tab.table.horizontalScrollBar().maximum() > 0,
            clipped_numbers=clipped(tab, NUMBER_COLUMNS),
            explorer_shown=tab.explorer.isVisible() and tab.explorer.width() > 0,
            explorer_width=tab.explorer.width() if tab.explorer.isVisible() else 0,
            tab_width=tab.width(),
            form_height=form_height(tab),
        )
    screen = window.screen().availableGeometry()
    frame = window.frameGeometry()
    out.update(screen=[screen.x(), screen.y(), screen.width(), screen.height()],
               window=[frame.x(), frame.y(), frame.width(), frame.height()],
               normal=[window.normalGeometry().width(), window.normalGeometry().height()],
               maximized=window.isMaximized())
    if os.environ.get("PROBE_SHOT"):
        window.grab().save(os.environ["PROBE_SHOT"])
    if os.environ.get("PROBE_CANCEL"):  # the user dismisses the request: the answer form goes
        tab.requests.cancel_button.click()
        loop.run_until_complete(until(lambda: tab.requests.reply_form() is None, 60, "the request answered"))
        loop.run_until_complete(laid_out())
        frame = window.frameGeometry()
        out.update(window_after_cancel=[frame.x(), frame.y(), frame.width(), frame.height()])
    if os.environ.get("PROBE_FOLD"):  # the user folds the Explorer away (Ctrl+E)
        tab.toggle_explorer()
        loop.run_until_complete(laid_out())
        frame = window.frameGeometry()
        out.update(window_after_fold=[frame.x(), frame.y(), frame.width(), frame.height()],
                   explorer_folded=not tab.explorer.isVisible())
    print(json.dumps(out), flush=True)
    window.close()
    if loop is not None:
        loop.run_forever()  # the window shuts the session down (the demo server ends), then quits
    settings.sync()


if __name__ == "__main__":
    main()
