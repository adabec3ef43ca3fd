"""An honest notebook under a file name that a spreadsheet would run as a formula (=HYPERLINK(...)): graded normally; its grades.csv cell starts with a quote."""
UPLOAD = {"name": '=HYPERLINK("https:example.invalid","click me").ipynb', "kind": "copy"}
STATUS = "graded"
MESSAGE = ""
