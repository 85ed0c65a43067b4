"""The base of the /v1 views reading the project in their path: with a bearer key, the key and
the project come in one query, and the view keeps the project instead of asking again."""

from rest_framework.views import APIView

from accounts.selectors import api_key_actor
from archsvc.exceptions import ProjectNotFound
from diagrams import selectors
from diagrams.models import Project


class ProjectAPIView(APIView):
    _key_read = None  # (actor, project_id, project or None) when a bearer key was read

    def actor_for_api_key(self, request, token: str):
        """Called by accounts.authentication.ApiKeyAuthentication (DRF makes a view object
        per request, so what is kept here belongs to this request)."""
        project_id = self.kwargs.get("project_id")
        if project_id is None:
            return api_key_actor(token=token)
        actor, project = selectors.api_key_actor_and_project(token=token, project_id=project_id)
        self._key_read = (actor, project_id, project)
        return actor

    def project(self, request, project_id: str) -> Project:
        """The project `project_id` of the actor's organization (selectors.project_get): the
        one read with the API key when there was one; else ProjectNotFound."""
        read = self._key_read
        if read is not None and read[0] is request.user and read[1] == project_id:
            if read[2] is None:
                raise ProjectNotFound()
            return read[2]
        return selectors.project_get(actor=request.user, project_id=project_id)

    def options(self, request, *args, **kwargs):
        """What the route takes, for a project the caller can read; 404 for one that does not
        exist or is another organization's, as every other method answers."""
        if "project_id" in kwargs:
            self.project(request, kwargs["project_id"])
        return super().options(request, *args, **kwargs)
