"""Instructor side of the week-7 package: the reference answers, the lab, and the notebook source."""
