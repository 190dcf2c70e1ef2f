"""Rollhouse server package."""
