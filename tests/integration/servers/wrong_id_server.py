"""Answers request id 2 with the id as a string ("2"), and any other request after initialize with both
"result" and "error"."""

from _wire import serve

BOTH = {"jsonrpc": "2.0", "result": {}, "error": {"code": -32603, "message": "both at once"}}


def reply(request):
    if request["method"] == "initialize":
        return None
    if request["id"] == 2:
        return {"jsonrpc": "2.0", "id": "2", "result": {"tools": []}}
    return {**BOTH, "id": request["id"]}


if __name__ == "__main__":
    serve("wrong-id-server", reply)
