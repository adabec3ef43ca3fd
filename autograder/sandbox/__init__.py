"""Code that runs inside the untrusted worker. Nothing here may import the hidden suites or solutions."""
