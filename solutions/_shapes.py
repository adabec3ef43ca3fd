"""The one shape vocabulary used in every shape comment of this package.

N  batch size            T  sequence length (Tq queries, Tk keys when they differ)
D  model width           H  number of heads         Dh  width of one head, D // H
V  vocabulary size       dk, dv  key and value widths of a single attention read
"""
__all__: list = []
