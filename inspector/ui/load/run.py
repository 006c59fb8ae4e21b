"""Session > Load test…: the current server (its live session's target, or a saved profile's), one tool called
again and again in a session of its own (saved in the captures folder), its progress drawn live in a Load view
(:class:`inspector.ui.load.view.LoadView`). The run is :class:`inspector.core.load.runner.LoadRun`."""

from __future__ import annotations

from typing import Any

from inspector.core.connect.target import Target
from inspector.core.load.runner import LoadPlan, ToolCall
from inspector.ui.host import SessionRunner


class LoadTests(SessionRunner):
    def load_current(self) -> None:
        """Ask in one dialog for the tool, its arguments, the concurrency and the duration; then run in a new
        tab."""
        from inspector.ui.load.dialog import LoadDialog

        tab = self.live_tab("Load test")
        if tab is None or tab.live is None:
            return
        catalog = tab.explorer.catalog
        page = tab.explorer.tools
        selected = page.tool.get("name") if page.tool is not None else None
        dialog = LoadDialog(list(catalog.items["tools"]) if catalog is not None else [], self.host.window(),
                            selected=str(selected) if selected else None,
                            arguments=page.arguments_editor.arguments() if page.arguments_editor is not None
                            else None)
        if not dialog.exec():
            return
        tool, base, concurrency, duration = dialog.choice()
        plan = LoadPlan("tools/call", None, concurrency, duration)
        self.tasks.spawn(self.run_load_view(tab.live.target, plan, ToolCall(tool, [], base)), "the load test")

    async def run_load_view(self, target: Target, plan: LoadPlan, call: ToolCall | None = None) -> Any:
        """Run ``plan`` (a ``call`` of a tool, else ``plan.method``) against ``target`` in a new Load view; returns
        the view once the run is over."""
        from inspector.core.connect.opened import CannotOpen, opened
        from inspector.core.load.runner import LoadError, LoadRun, call_params
        from inspector.core.paths import capture_name
        from inspector.ui.load.view import LoadView

        target = self.prepare(target)
        out = self.captures / ("load-" + capture_name(target.name or "server"))
        what = f"tools/call {call.tool}" if call is not None else plan.method
        view = LoadView(f"load test of {what} on {target.describe()}: concurrency {plan.concurrency}, "
                        f"{plan.duration:g} s" if plan.duration else f"{plan.requests} requests", out,
                        self.host.window())
        self.show_view(view, f"load: {call.tool if call is not None else plan.method}")
        try:
            async with opened(target, out) as session:
                if call is not None:
                    plan.params = await call_params(session, call, target.timeout)
                run = LoadRun(session, plan, http=target.is_http, timeout=target.timeout, on_progress=view.progress)
                view.on_stop(run.stop)
                figures = await run.run()
        except (CannotOpen, LoadError) as exc:
            view.finished({}, str(exc))
            self.say(f"load test: {exc}")
            return view
        figures["capture"] = str(out)
        view.finished(figures)
        self.say(f"load test of {what}: {figures['throughput']:,.0f}/s, {figures['errors']} errors")
        return view
