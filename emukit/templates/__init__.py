"""Declarative causal templates (YAML files shipped with emukit, plus folders of your own: see
:mod:`emukit.resources`), their validation and their seeded parameter sampler."""

from emukit.templates.loader import load_template, load_templates, template_folders, templates_dir
from emukit.templates.schema import Template

__all__ = ["Template", "load_template", "load_templates", "template_folders", "templates_dir"]
