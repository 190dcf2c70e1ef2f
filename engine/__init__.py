"""Rollhouse engine package."""
