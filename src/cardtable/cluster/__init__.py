"""Scale-out: many ``cardtable serve`` processes, on one machine or many, as one card room.

Turned on by ``REDIS_URL`` (with ``DATABASE_URL`` on PostgreSQL); without it nothing here
is used and one process serves everything. The parts, each small:

=============  =================================================================
``leases``     one owner per table: a Redis lease with a fencing token, renewed by
               its holder; the token is checked by every append to the event log
``bus``        Redis pub/sub between processes, one channel per process, plus the
               lobby's channel; order kept per sender
``remote``     the two ends of a socket held by a process that does not own its
               table: ``RemoteTable`` forwards, ``RemoteConnection`` relays the
               owner's redacted frames
``node``       one process in the room: its roles as owner and as holder of
               sockets, heartbeats, failure detection, draining on a clean stop
=============  =================================================================

The server says what it needs of a cluster (``server/coordinator.py``: a ``Coordinator``,
the ``ForwardedTable`` stand-in's interface, ``Moved``); this package implements it and
imports from the server, never the other way round: only the app's wiring builds a node.

docs/server.md tells the whole story (and why pub/sub rather than streams);
docs/deploy.md how to run it.
"""
