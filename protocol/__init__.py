"""Rollhouse wire protocol: pure, no I/O.

- :mod:`protocol.messages`  the wire messages (attrs frozen classes with a ``TYPE`` tag)
- :mod:`protocol.codec`     msgpack/JSON codecs, strict decoding, ``ProtocolError``
- :mod:`protocol.patch`     ``diff``/``apply`` between plain-data views
- :mod:`protocol.plain`     limits of plain data on the wire (depth, ints, floats, Unicode)
- :mod:`protocol.errors`    the catalogue of wire error codes

See docs/protocol.md for the wire itself.
"""
