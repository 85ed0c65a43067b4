# archsvc app server: stateless; run as many as you like behind a load balancer, all on one
# PostgreSQL and one Redis (docs/operations.md).
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 DEBUG=0 STATIC_HASHED=1
WORKDIR /app
COPY requirements-runtime.txt .
RUN pip install --no-cache-dir -r requirements-runtime.txt
COPY . .
RUN SECRET_KEY=build-only python manage.py collectstatic --noinput
USER nobody
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2)"
CMD ["gunicorn", "archsvc.wsgi", "-c", "gunicorn.conf.py"]
