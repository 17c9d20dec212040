"""API tokens are kept as digests, several per user, each named, revocable and with a last-used time.
Keys made before keep working: their digest and lookup are computed from the stored key, which is
then dropped."""

import hashlib

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

LEGACY_LOOKUP_LENGTH = 12


def hash_existing_keys(apps, schema_editor):
    ApiToken = apps.get_model("conversions", "ApiToken")
    for token in ApiToken.objects.all():
        token.lookup = token.key[:LEGACY_LOOKUP_LENGTH]
        token.digest = hashlib.sha256(token.key.encode()).hexdigest()
        token.name = "made before keys were named"
        token.save(update_fields=["lookup", "digest", "name"])


class Migration(migrations.Migration):
    dependencies = [
        ("conversions", "0005_outbox"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="apitoken",
            name="name",
            field=models.CharField(default="", help_text="What the key is for, e.g. “analysis server”.", max_length=100),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="apitoken",
            name="lookup",
            field=models.CharField(editable=False, max_length=16, null=True),
        ),
        migrations.AddField(
            model_name="apitoken",
            name="digest",
            field=models.CharField(default="", editable=False, max_length=64),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="apitoken",
            name="last_used",
            field=models.DateTimeField(blank=True, editable=False, null=True),
        ),
        migrations.AddField(
            model_name="apitoken",
            name="revoked",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.RunPython(hash_existing_keys, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="apitoken",
            name="lookup",
            field=models.CharField(editable=False, max_length=16, unique=True),
        ),
        migrations.RemoveField(model_name="apitoken", name="key"),
        migrations.AlterField(
            model_name="apitoken",
            name="user",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE, related_name="api_tokens", to=settings.AUTH_USER_MODEL
            ),
        ),
        migrations.AlterModelOptions(name="apitoken", options={"ordering": ["-created"]}),
    ]
