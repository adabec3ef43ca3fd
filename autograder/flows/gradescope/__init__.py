"""Gradescope: build autograder.zip (`make gradescope`) and grade inside Gradescope's container."""
