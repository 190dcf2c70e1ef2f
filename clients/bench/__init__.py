"""The load generator and benchmark (``rollhouse bench``): processes, phases, figures."""
