# the web app
