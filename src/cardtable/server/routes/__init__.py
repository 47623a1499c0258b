"""The server's HTTP routes and WebSocket endpoints, one module per part of the API
(docs/protocol.md); :func:`cardtable.server.app.create_app` wires them into the app.

* :mod:`.pages`: the single page (``/``, ``/t/{code}``) and ``/static``;
* :mod:`.games`: ``GET /api/games``, what every registered game offers;
* :mod:`.tables`: create a table, look one up by its code, join it;
* :mod:`.lobby`: the public lobby, its quick join and ``WS /ws/lobby``;
* :mod:`.table_socket`: ``WS /ws/{table_id}``, a table's frames;
* :mod:`.moderation`: block and unblock players, report one to the operator;
* :mod:`.errors`: the error bodies every route answers with;
* :mod:`.shared`: what several of them use (the live registry, the lookup budget).
"""
