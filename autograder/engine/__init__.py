"""The trusted side of grading: hidden suites, the worker's supervisor, and the results."""
