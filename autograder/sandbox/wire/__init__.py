"""What crosses between the grader and a worker: length-prefixed frames holding typed messages (protocol.py), whose
values are JSON plus raw tensor bytes (values.py), read strictly, never unpickled and never code. Both sides import
it; nothing here trusts the other side."""
