"""Declarative causal templates (YAML files in the project's ``templates/`` folder), their validation and
their seeded parameter sampler."""

from emukit.templates.loader import load_template, load_templates, templates_dir
from emukit.templates.schema import Template

__all__ = ["Template", "load_template", "load_templates", "templates_dir"]
