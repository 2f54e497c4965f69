"""YARN's REST API v1 (``/ws/v1/cluster``) as Hadoop 3.4's ResourceManager serves it
(docs/rest.md).

* :mod:`~fairshare.server.rest.jersey`: the document model and its two serialisations, Jersey
  1.19's "natural" JSON and JAXB's XML, byte for byte as the RM writes them;
* :mod:`~fairshare.server.rest.daos`: the RM's DAOs (``ClusterInfo``, ``FairSchedulerInfo``,
  ``AppInfo``, ``NodeInfo``, …) rendered from a frozen
  :class:`~fairshare.server.view.ServerSnapshot`;
* :mod:`~fairshare.server.rest.submit`: ``POST /apps``' body read into a
  :class:`~fairshare.server.submission.Submission`;
* :mod:`~fairshare.server.rest.app`: the FastAPI app serving all of it through
  :class:`~fairshare.server.control.Control`.
"""
