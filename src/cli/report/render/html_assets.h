// SPDX-License-Identifier: MIT
/*
 * html_assets.h: the style sheet and the script of the HTML page, and the
 * Content-Security-Policy that allows exactly them (html_assets.c, made by
 * scripts/embed-page.py from page.css and page.js).
 */
#ifndef HT_REPORT_HTML_ASSETS_H
#define HT_REPORT_HTML_ASSETS_H

extern const char ht_rep_page_css[];
extern const char ht_rep_page_js[];
extern const char ht_rep_page_csp[];

#endif
