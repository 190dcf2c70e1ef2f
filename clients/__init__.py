"""Rollhouse clients package."""
