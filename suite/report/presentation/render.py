"""The templates under ``templates/``, rendered to HTML with autoescape, and every name a
template reads required (``StrictUndefined``)."""

from __future__ import annotations

import jinja2


def render(template: str, context: dict) -> str:
    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("suite.report.presentation", "templates"),
        autoescape=jinja2.select_autoescape(["html", "j2"]),
        undefined=jinja2.StrictUndefined,
    )
    return environment.get_template(template).render(**context)
