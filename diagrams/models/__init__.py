from diagrams.models.projects import Pin, Project

__all__ = ["Pin", "Project"]
