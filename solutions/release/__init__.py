"""From one source to a released assignment: build the instructor notebook, run nbgrader, check the result."""
