"""REST for spectators, replayers and auditors (Litestar): ``app.create_app``
builds it, ``server.start_http_server`` serves it beside gRPC."""
