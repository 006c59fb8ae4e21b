"""The window's load test: Session > Load test… (:mod:`.run`) and its view with live throughput and a latency
histogram drawn with QtCharts (:mod:`.view`)."""
