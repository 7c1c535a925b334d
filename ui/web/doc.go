// Package web is the participants' front end of an evaluation study: the pages a participant
// opens from their link in an ordinary browser, served by the app (`agentdesk eval serve`, the
// Evaluation workspace's Serve). It drives the same study session as the desktop's Annotate
// tab (engine/evaluation/session), so an answer given here is stored exactly as one given at
// the desk.
//
// Security, since the app then listens on a network: every link carries a per-participant
// token signed with the project's secret (or the study link's, for crowdsourcing sites, whose
// participants are then bound to the browser that started); state-changing requests need a
// form token bound to the browser's cookie and a same-origin request; bodies are size-limited
// and every field is validated by the session before anything is stored; pages are rendered
// with html/template (text always escaped) under a content security policy without inline
// script.
package web
