"""``mcp-inspector serve CAPTURE``: a recorded session served back as the server, a twin a client can use offline.

``index`` finds the capture's exchanges without loading it, ``matcher`` picks the recorded answer of each
request (``--match``), ``handshake`` answers ``initialize`` and ``server/discover`` as recorded, ``twin`` turns
each message of the client into what the twin sends back (sans-io), ``stdio`` is the loop on standard input
and output, and ``http`` serves it over Streamable HTTP or HTTP+SSE on loopback (``--listen``).
"""
