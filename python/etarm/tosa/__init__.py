"""TOSA: specification handling, the graph builder visitors write through, the TOSA target."""
